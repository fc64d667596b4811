from django.db import models


class Client(models.Model):
    client_id = models.CharField(max_length=40, primary_key=True)
    name = models.CharField(max_length=200)
    status = models.CharField(max_length=20, default='active')

    class Meta:
        app_label = 'labsite'
        ordering = ['client_id']


class Project(models.Model):
    project_id = models.CharField(max_length=40, primary_key=True)
    client = models.ForeignKey(Client, on_delete=models.CASCADE, related_name='projects')
    name = models.CharField(max_length=200)
    kind = models.CharField(max_length=20, default='project')
    status = models.CharField(max_length=20, default='active')

    class Meta:
        app_label = 'labsite'
        ordering = ['project_id']


class Sample(models.Model):
    sample_id = models.CharField(max_length=40, primary_key=True)
    client = models.ForeignKey(Client, on_delete=models.CASCADE)
    project = models.ForeignKey(Project, on_delete=models.CASCADE)
    matrix = models.CharField(max_length=40)
    status = models.CharField(max_length=20)
    received_at = models.DateTimeField()

    class Meta:
        app_label = 'labsite'
        ordering = ['sample_id']


class Report(models.Model):
    STATUSES = [('final', 'Final'), ('amended', 'Amended'), ('preliminary', 'Preliminary')]
    report_id = models.CharField(max_length=40, primary_key=True)
    report_type = models.CharField(max_length=60)
    status = models.CharField(max_length=20, choices=STATUSES)
    published_at = models.DateTimeField()
    download_available = models.BooleanField(default=True)
    client = models.ForeignKey(Client, on_delete=models.CASCADE)
    project = models.ForeignKey(Project, on_delete=models.CASCADE, null=True)
    samples = models.ManyToManyField(Sample, blank=True)
    pdf = models.BinaryField(null=True)

    class Meta:
        app_label = 'labsite'
        ordering = ['-published_at', 'report_id']
